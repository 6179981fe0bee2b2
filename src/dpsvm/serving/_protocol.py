# SPDX-License-Identifier: BSD-3-Clause
"""The wire format of an infer request and its answer (Open Inference Protocol v2).

A request body is JSON, or, with the binary tensor data extension, a JSON
header of ``Inference-Header-Content-Length`` bytes followed by the raw tensors
(little-endian; ``BYTES`` elements as a 4-byte little-endian length then the
bytes), in the order of the inputs that declare ``parameters.binary_data_size``.
An answer is JSON, or the same framing when the client asks for binary outputs
(``parameters.binary_data_output`` on the request, ``parameters.binary_data``
on a requested output). Every malformed body is an :class:`InputError` (HTTP
422, nothing spent), never a server error.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import struct
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._inputs import InputError

__all__ = [
    "ErrorBody",
    "InferInput",
    "InferRequest",
    "ParsedRequest",
    "decode_request",
    "encode_response",
    "request_hash",
]

#: The one output tensor of every served model.
OUTPUT_NAME = "label"
#: Header carrying the JSON part's length (binary tensor data extension).
HEADER_LENGTH = "inference-header-content-length"

_FIXED = {
    "BOOL": "|b1",
    "UINT8": "|u1",
    "UINT16": "<u2",
    "UINT32": "<u4",
    "UINT64": "<u8",
    "INT8": "|i1",
    "INT16": "<i2",
    "INT32": "<i4",
    "INT64": "<i8",
    "FP16": "<f2",
    "FP32": "<f4",
    "FP64": "<f8",
}


class ErrorBody(BaseModel):
    """Every error answer: ``{"error": "what to change"}``."""

    error: str


class InferInput(BaseModel):
    """One input tensor (OIP v2 ``$request_input``).

    ``data`` holds the values (flat row-major, or nested); with the binary
    tensor data extension it is left out and ``parameters.binary_data_size``
    gives the tensor's byte length in the binary part of the body.
    """

    model_config = ConfigDict(strict=True)

    name: str = Field(max_length=256)
    shape: list[int]
    datatype: str = Field(max_length=16)
    data: list[Any] | None = None
    parameters: dict[str, Any] | None = None


class RequestedOutput(BaseModel):
    """One requested output (OIP v2 ``$request_output``)."""

    model_config = ConfigDict(strict=True)

    name: str = Field(max_length=256)
    parameters: dict[str, Any] | None = None


class InferRequest(BaseModel):
    """An inference request (OIP v2 ``$inference_request``)."""

    model_config = ConfigDict(strict=True)

    id: str | None = Field(
        default=None,
        max_length=256,
        description="Request id: a retried id returns the stored answer and "
        "spends nothing.",
    )
    inputs: list[InferInput] = Field(min_length=1)
    outputs: list[RequestedOutput] | None = Field(
        default=None,
        description="Outputs to return (the model has one, 'label'); absent: all.",
    )
    parameters: dict[str, Any] | None = Field(
        default=None,
        description="'binary_data_output': true asks for binary outputs.",
    )


@dataclasses.dataclass(frozen=True)
class ParsedRequest:
    """A decoded infer request.

    Attributes
    ----------
    id : str or None
        The client's request id.
    inputs : list of dict
        ``name``, ``shape``, ``datatype`` and flat or nested ``data`` of each
        input tensor (binary tensors decoded).
    outputs : list of str
        The requested output names (all, when the request names none).
    binary_outputs : set of str
        The outputs to send as binary tensors.
    """

    id: str | None
    inputs: list[dict[str, Any]]
    outputs: list[str]
    binary_outputs: frozenset[str]


def _flag(params: dict[str, Any] | None, name: str, where: str) -> bool | None:
    if not params or name not in params:
        return None
    value = params[name]
    if not isinstance(value, bool):
        raise InputError(f"{where}: parameter {name!r} must be true or false")
    return value


def _count(shape: list[int], where: str) -> int:
    if any(s < 0 for s in shape):
        raise InputError(f"{where}: shape must be a list of integers >= 0")
    return math.prod(shape)


def _binary_tensor(raw: bytes, datatype: str, shape: list[int], where: str) -> list:
    """The values of one binary tensor (little-endian; BYTES length-prefixed)."""
    n = _count(shape, where)
    if datatype in _FIXED:
        dtype = np.dtype(_FIXED[datatype])
        if len(raw) != n * dtype.itemsize:
            raise InputError(
                f"{where}: binary_data_size is {len(raw)} bytes; shape {shape} of "
                f"{datatype} needs {n * dtype.itemsize}"
            )
        return np.frombuffer(raw, dtype=dtype).tolist()
    if datatype != "BYTES":
        raise InputError(f"{where}: datatype {datatype!r} is not supported")
    out: list[Any] = []
    pos = 0
    while pos < len(raw):
        if pos + 4 > len(raw) or len(out) >= n:
            raise InputError(
                f"{where}: the binary BYTES tensor does not hold {n} elements "
                "(each: a 4-byte little-endian length, then the bytes)"
            )
        (size,) = struct.unpack_from("<I", raw, pos)
        pos += 4
        if pos + size > len(raw):
            raise InputError(f"{where}: a BYTES element runs past binary_data_size")
        try:
            out.append(raw[pos : pos + size].decode("utf-8"))
        except UnicodeDecodeError:
            raise InputError(f"{where}: BYTES elements must be UTF-8 text") from None
        pos += size
    if len(out) != n:
        raise InputError(
            f"{where}: the binary BYTES tensor holds {len(out)} elements; shape "
            f"{shape} needs {n}"
        )
    return out


def _invalid(exc: ValidationError) -> InputError:
    parts = []
    for e in exc.errors()[:3]:
        loc = ".".join(str(p) for p in e.get("loc", ()))
        parts.append(f"{loc}: {e.get('msg', 'invalid')}" if loc else e["msg"])
    return InputError("invalid request body: " + "; ".join(parts))


def decode_request(body: bytes, header_length: str | None) -> ParsedRequest:
    """Decode an infer request body (JSON, or the binary tensor data extension).

    Parameters
    ----------
    body : bytes
        The whole request body.
    header_length : str or None
        The ``Inference-Header-Content-Length`` header: the JSON part's length
        when the body carries binary tensors.

    Returns
    -------
    ParsedRequest
        The request with every tensor's values decoded.

    Raises
    ------
    InputError
        For malformed JSON (too deep, out-of-range numbers included), a body
        that does not follow the published schema, binary framing that
        disagrees with the declared shapes, or an unknown output name.
    """
    binary = b""
    if header_length is not None:
        text = header_length.strip()
        if not text.isdigit() or int(text) > len(body):
            raise InputError(
                "Inference-Header-Content-Length must be the byte length of the "
                "JSON part of the body"
            )
        body, binary = body[: int(text)], body[int(text) :]
    try:
        obj = json.loads(body)
    except RecursionError:
        raise InputError("invalid request body: JSON nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, bad UTF-8, too many digits
        raise InputError(f"invalid request body: malformed JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise InputError("invalid request body: the body must be a JSON object")
    try:
        request = InferRequest.model_validate(obj)
    except ValidationError as exc:
        raise _invalid(exc) from None

    inputs: list[dict[str, Any]] = []
    pos = 0
    for t, given in zip(request.inputs, obj["inputs"], strict=True):
        where = f"input {t.name!r}"
        size = (t.parameters or {}).get("binary_data_size")
        if size is None:
            if t.data is None:
                raise InputError(
                    f"{where}: give 'data', or 'parameters.binary_data_size' with "
                    "the tensor in the binary part of the body"
                )
            data = given["data"]  # as sent: the values are checked when parsed
        else:
            if isinstance(size, bool) or not isinstance(size, int) or size < 0:
                raise InputError(f"{where}: binary_data_size must be an integer >= 0")
            if t.data is not None:
                raise InputError(f"{where}: give 'data' or binary_data_size, not both")
            if pos + size > len(binary):
                raise InputError(
                    f"{where}: binary_data_size runs past the end of the body (send "
                    "the header Inference-Header-Content-Length with the JSON length)"
                )
            data = _binary_tensor(binary[pos : pos + size], t.datatype, t.shape, where)
            pos += size
        inputs.append(
            {"name": t.name, "shape": t.shape, "datatype": t.datatype, "data": data}
        )
    if pos != len(binary):
        raise InputError(
            f"the body has {len(binary) - pos} bytes after the last binary tensor"
        )

    default_binary = bool(_flag(request.parameters, "binary_data_output", "request"))
    if request.outputs:
        outputs, binary_outputs = [], set()
        for o in request.outputs:
            if o.name != OUTPUT_NAME:
                raise InputError(
                    f"unknown output {o.name!r}; this model has one output, "
                    f"{OUTPUT_NAME!r}"
                )
            if o.name in outputs:
                raise InputError(f"output {o.name!r} is requested twice")
            outputs.append(o.name)
            flag = _flag(o.parameters, "binary_data", f"output {o.name!r}")
            if flag if flag is not None else default_binary:
                binary_outputs.add(o.name)
    else:
        outputs = [OUTPUT_NAME]
        binary_outputs = {OUTPUT_NAME} if default_binary else set()
    return ParsedRequest(request.id, inputs, outputs, frozenset(binary_outputs))


def request_hash(parsed: ParsedRequest, rows: np.ndarray) -> str:
    """Digest of the decoded request: tensors' names, shapes and datatypes, the
    decoded rows and the requested outputs (not the JSON text, so the same data
    sent nested, flat or binary has one digest).

    Parameters
    ----------
    parsed : ParsedRequest
        The decoded request.
    rows : ndarray of shape (B, d)
        Its query rows as :func:`parse_inputs` read them.

    Returns
    -------
    str
        A SHA-256 hex digest.
    """
    h = hashlib.sha256()
    meta = {
        "inputs": [[t["name"], list(t["shape"]), t["datatype"]] for t in parsed.inputs],
        "outputs": parsed.outputs,
        "rows": list(rows.shape),
    }
    h.update(json.dumps(meta, sort_keys=True).encode("utf-8"))
    if rows.dtype == object:
        h.update(json.dumps(rows.tolist()).encode("utf-8"))
    else:
        h.update(np.ascontiguousarray(rows, dtype="<f8").tobytes())
    return h.hexdigest()


def _tensor_bytes(datatype: str, data: list[Any]) -> bytes:
    if datatype == "BYTES":
        parts = []
        for v in data:
            b = str(v).encode("utf-8")
            parts += [struct.pack("<I", len(b)), b]
        return b"".join(parts)
    return np.asarray(data, dtype=np.dtype(_FIXED[datatype])).tobytes()


def encode_response(
    response: dict[str, Any], parsed: ParsedRequest
) -> tuple[bytes, int | None]:
    """The answer's body: JSON, or a JSON header and binary outputs.

    Parameters
    ----------
    response : dict
        The answer as stored in the ledger (JSON tensors).
    parsed : ParsedRequest
        The request (which outputs, which of them binary).

    Returns
    -------
    body : bytes
        The response body.
    header_length : int or None
        The JSON header's length when some output is binary, else ``None``.
    """
    outputs, blobs = [], []
    for out in response["outputs"]:
        if out["name"] not in parsed.outputs:
            continue
        if out["name"] in parsed.binary_outputs:
            blob = _tensor_bytes(out["datatype"], out["data"])
            blobs.append(blob)
            out = {k: v for k, v in out.items() if k != "data"}
            out["parameters"] = {"binary_data_size": len(blob)}
        outputs.append(out)
    header = json.dumps({**response, "outputs": outputs}).encode("utf-8")
    if not blobs:
        return header, None
    return header + b"".join(blobs), len(header)
