# SPDX-License-Identifier: BSD-3-Clause
"""Open Inference Protocol v2 conformance: Triton's client, KServe v2 REST shapes,
the binary tensor data extension, and never a 500 from input (issue 24)."""

from __future__ import annotations

import contextlib
import json
import struct
import threading
import time
import warnings

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from _service_helpers import (
    KEY,
    StatefulDouble,
    auth,
    free_port,
    infer_body,
    make_keys,
    make_ledger,
    make_served,
    service_fixture,  # noqa: F401 (the `service` fixture)
)
from fastapi.testclient import TestClient

from dpsvm.serving import Answers, InputSpec, ServedModel, create_app

URL = "/v2/models/dpsvm"


def spent(client) -> tuple[float, int]:
    b = client.get(f"{URL}/budget", headers=auth()).json()
    return b["epsilon_spent"], b["answers"]


class StringLabels(StatefulDouble):
    """The double with string classes (a BYTES output)."""

    def answer(self, X):
        a = super().answer(X)
        return Answers(np.where(a.labels > 0, ">50K", "<=50K"), a.exhausted)


def _categorical_served() -> ServedModel:
    """Columns (age, hours, workclass): a BYTES input and a BYTES output."""

    def transform(raw):
        raw = np.asarray(raw, dtype=object)
        num = raw[:, :2].astype(np.float64)
        return np.c_[num[:, 0] - 50, num[:, 1] - 40, raw[:, 2] == "Private"]

    return ServedModel(
        name="dpsvm",
        predictor=StringLabels(),
        inputs=InputSpec(
            ["age", "hours", "workclass"], [False, False, True], transform
        ),
        classes=["<=50K", ">50K"],
        mechanism="test-double",
        free=False,
        fingerprint="e" * 64,
    )


@contextlib.contextmanager
def _live_server(served, tmp_path):
    """A real uvicorn server on a loopback port (a thread): ``host:port``."""
    import uvicorn

    ledger = make_ledger(str(tmp_path / "ledger.db"), served)
    app = create_app(served, ledger, make_keys(), max_batch=64)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "no server"
            time.sleep(0.02)
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        ledger.dispose()


@pytest.fixture(params=["numeric", "categorical"])
def live(request, tmp_path):
    """(host:port, served) of a real server, numeric or categorical inputs."""
    served = make_served() if request.param == "numeric" else _categorical_served()
    with _live_server(served, tmp_path) as url:
        yield url, served


def _httpclient():
    with warnings.catch_warnings():
        # gevent / geventhttpclient may warn on import on some versions.
        warnings.simplefilter("ignore", DeprecationWarning)
        import tritonclient.http as httpclient
        from tritonclient.utils import InferenceServerException
    return httpclient, InferenceServerException


def _labels(result) -> list:
    """The label tensor (binary BYTES come back as bytes, JSON ones as str)."""
    return [
        v.decode() if isinstance(v, bytes) else v
        for v in result.as_numpy("label").tolist()
    ]


def _queries(served) -> tuple[np.ndarray, str, list]:
    """Two query rows as the model takes them, their datatype and true labels."""
    if served.inputs.has_categorical:
        X = np.array([["52", "45", "Private"], ["23", "20", "State-gov"]], dtype=object)
        return X, "BYTES", [">50K", "<=50K"]
    return np.array([[1.0, 2.0, 3.0], [-1.0, -2.0, -0.5]]), "FP64", [1, -1]


@pytest.mark.parametrize("binary", [True, False])
def test_tritonclient_drives_every_call(live, binary):
    pytest.importorskip("tritonclient.http")
    pytest.importorskip("geventhttpclient")
    httpclient, InferenceServerException = _httpclient()
    url, served = live
    client = httpclient.InferenceServerClient(url)
    try:
        assert client.is_server_live() and client.is_server_ready()
        assert client.is_model_ready("dpsvm") and client.is_model_ready("dpsvm", "1")
        assert not client.is_model_ready("dpsvm", "2")
        assert not client.is_model_ready("other")
        meta = client.get_server_metadata(headers=auth())
        assert "binary_tensor_data" in meta["extensions"]
        model = client.get_model_metadata("dpsvm", "1", headers=auth())
        assert model["versions"] == ["1"] and model["inputs"][0]["name"] == "input"
        assert model == client.get_model_metadata("dpsvm", headers=auth())

        X, datatype, truth = _queries(served)
        inp = httpclient.InferInput("input", list(X.shape), datatype)
        inp.set_data_from_numpy(X, binary_data=binary)
        # No outputs named: tritonclient asks for binary outputs.
        r = client.infer("dpsvm", [inp], headers=auth(), request_id="t1")
        assert _labels(r) == truth
        out = httpclient.InferRequestedOutput("label", binary_data=binary)
        r = client.infer(
            "dpsvm",
            [inp],
            outputs=[out],
            model_version="1",
            headers=auth(),
            request_id="t2",
        )
        assert _labels(r) == truth
        assert r.get_response()["id"] == "t2"
        # A retried id with the same data (binary or not) is the stored answer.
        again = client.infer(
            "dpsvm", [inp], outputs=[out], headers=auth(), request_id="t1"
        )
        assert _labels(again) == truth
        assert served.predictor.n_answers == 4

        # Errors reach the client as the server's messages; nothing is spent.
        with pytest.raises(InferenceServerException, match="unknown output"):
            client.infer(
                "dpsvm",
                [inp],
                headers=auth(),
                outputs=[httpclient.InferRequestedOutput("score")],
            )
        with pytest.raises(InferenceServerException, match="unknown version"):
            client.infer("dpsvm", [inp], model_version="2", headers=auth())
        with pytest.raises(InferenceServerException, match="API key"):
            client.infer("dpsvm", [inp])
        bad = httpclient.InferInput("features", list(X.shape), datatype)
        bad.set_data_from_numpy(X, binary_data=binary)
        with pytest.raises(InferenceServerException, match="unknown input names"):
            client.infer("dpsvm", [bad], headers=auth())
        assert served.predictor.n_answers == 4
    finally:
        client.close()


def test_a_body_over_the_limit_is_413_json_over_a_real_connection(tmp_path):

    served = make_served()
    with _live_server(served, tmp_path) as url:
        _oversized(url, served)


def _oversized(url, served):
    import httpx

    body = b'{"inputs": [' + b" " * (9 * 1024 * 1024) + b"]}"
    r = httpx.post(f"http://{url}{URL}/infer", content=body, headers=auth(), timeout=30)
    assert r.status_code == 413 and "larger than" in r.json()["error"]
    assert served.predictor.n_answers == 0
    # Unauthenticated: 401 without reading the body.
    r = httpx.post(f"http://{url}{URL}/infer", content=b"{bad", timeout=30)
    assert r.status_code == 401
    # HEAD over a real connection: the status, no body.
    r = httpx.head(f"http://{url}/v2/health/live", timeout=30)
    assert r.status_code == 200 and r.content == b""


# ---------------------------------------------------------------- KServe v2
def test_kserve_v2_rest_shapes(service):
    client, _, _ = service
    assert client.get(f"{URL}/versions/1/ready").json() == {
        "name": "dpsvm",
        "ready": True,
    }
    assert client.get(f"{URL}/versions/2/ready").status_code == 404
    meta = client.get(f"{URL}/versions/1", headers=auth()).json()
    assert meta == client.get(URL, headers=auth()).json()
    assert client.get(f"{URL}/versions/7", headers=auth()).status_code == 404
    body = infer_body([[1, 2, 3], [-1, -2, -3]], "k1")
    body["outputs"] = [{"name": "label"}]
    r = client.post(f"{URL}/versions/1/infer", json=body, headers=auth())
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/json"
    out = r.json()
    assert out["id"] == "k1" and out["model_name"] == "dpsvm"
    assert out["outputs"] == [
        {"name": "label", "shape": [2], "datatype": "INT64", "data": [1, -1]}
    ]
    r = client.post(f"{URL}/versions/3/infer", json=body, headers=auth())
    assert r.status_code == 404 and "unknown version" in r.json()["error"]


def _binary_body(header: dict, *blobs: bytes) -> tuple[bytes, dict]:
    text = json.dumps(header).encode()
    headers = {**auth(), "Inference-Header-Content-Length": str(len(text))}
    return text + b"".join(blobs), headers


def _split(response) -> tuple[dict, bytes]:
    n = int(response.headers["inference-header-content-length"])
    return json.loads(response.content[:n]), response.content[n:]


def test_binary_tensors_by_hand_in_and_out(service):
    client, _, _ = service
    X = np.array([[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]])
    raw = X.astype("<f8").tobytes()
    tensor = {
        "name": "input",
        "shape": [2, 3],
        "datatype": "FP64",
        "parameters": {"binary_data_size": len(raw)},
    }
    body, headers = _binary_body(
        {
            "id": "b1",
            "inputs": [tensor],
            "outputs": [{"name": "label", "parameters": {"binary_data": True}}],
        },
        raw,
    )
    r = client.post(f"{URL}/infer", content=body, headers=headers)
    assert r.status_code == 200, r.text
    header, blob = _split(r)
    (out,) = header["outputs"]
    assert out["parameters"] == {"binary_data_size": 16} and "data" not in out
    assert np.frombuffer(blob, "<i8").tolist() == [1, -1]
    # The same request as FP32, and as the whole-request binary_data_output flag.
    raw32 = X.astype("<f4").tobytes()
    tensor32 = {
        **tensor,
        "datatype": "FP32",
        "parameters": {"binary_data_size": len(raw32)},
    }
    body, headers = _binary_body(
        {"inputs": [tensor32], "parameters": {"binary_data_output": True}}, raw32
    )
    header, blob = _split(client.post(f"{URL}/infer", content=body, headers=headers))
    assert np.frombuffer(blob, "<i8").tolist() == [1, -1]


def test_binary_bytes_tensor_is_length_prefixed(tmp_path):
    served = _categorical_served()
    ledger = make_ledger(str(tmp_path / "l.db"), served)
    app = create_app(served, ledger, make_keys())
    cells = ["52", "45", "Private", "23", "20", "State-gov"]
    raw = b"".join(struct.pack("<I", len(c)) + c.encode() for c in cells)
    tensor = {
        "name": "input",
        "shape": [2, 3],
        "datatype": "BYTES",
        "parameters": {"binary_data_size": len(raw)},
    }
    with TestClient(app) as client:
        body, headers = _binary_body(
            {"inputs": [tensor], "parameters": {"binary_data_output": True}}, raw
        )
        r = client.post(f"{URL}/infer", content=body, headers=headers)
        assert r.status_code == 200, r.text
        header, blob = _split(r)
        assert header["outputs"][0]["datatype"] == "BYTES"
        labels, pos = [], 0
        while pos < len(blob):
            (n,) = struct.unpack_from("<I", blob, pos)
            labels.append(blob[pos + 4 : pos + 4 + n].decode())
            pos += 4 + n
        assert labels == [">50K", "<=50K"]
        # A truncated element is a 422, not a 500.
        body, headers = _binary_body(
            {"inputs": [{**tensor, "parameters": {"binary_data_size": 9}}]},
            raw[:9],
        )
        r = client.post(f"{URL}/infer", content=body, headers=headers)
        assert r.status_code == 422 and "BYTES" in r.json()["error"]
        assert served.predictor.n_answers == 2
    ledger.dispose()


@pytest.mark.parametrize(
    ("size", "tail", "fragment"),
    [
        (48, b"\0" * 40, "runs past the end"),
        (40, b"\0" * 40, "needs 48"),
        (48, b"\0" * 56, "bytes after the last binary tensor"),
        (-1, b"", "binary_data_size must be an integer"),
    ],
)
def test_bad_binary_framing_is_422(service, size, tail, fragment):
    client, _, _ = service
    tensor = {
        "name": "input",
        "shape": [2, 3],
        "datatype": "FP64",
        "parameters": {"binary_data_size": size},
    }
    body, headers = _binary_body({"inputs": [tensor]}, tail)
    r = client.post(f"{URL}/infer", content=body, headers=headers)
    assert r.status_code == 422 and fragment in r.json()["error"], r.text
    assert spent(client) == (0, 0)


def test_header_length_beyond_the_body_is_422(service):
    client, _, _ = service
    r = client.post(
        f"{URL}/infer",
        content=b"{}",
        headers={**auth(), "Inference-Header-Content-Length": "99"},
    )
    assert r.status_code == 422 and "Inference-Header" in r.json()["error"]


@pytest.mark.parametrize(
    "outputs", [[{"name": "score"}], [{"name": "label"}, {"name": "label"}]]
)
def test_unknown_or_repeated_output_is_422_before_any_charge(service, outputs):
    client, served, _ = service
    body = {**infer_body([[1, 2, 3]]), "outputs": outputs}
    r = client.post(f"{URL}/infer", json=body, headers=auth())
    assert r.status_code == 422, r.text
    assert spent(client) == (0, 0) and served.predictor.n_answers == 0


def test_the_input_name_is_checked(service):
    client, served, _ = service
    body = infer_body([[1, 2, 3]])
    body["inputs"][0]["name"] = "features"
    r = client.post(f"{URL}/infer", json=body, headers=auth())
    assert r.status_code == 422 and "unknown input names" in r.json()["error"]
    assert served.predictor.n_answers == 0


def test_head_on_health_and_allow_on_405(service):
    client, _, _ = service
    for path in ("/v2/health/live", "/v2/health/ready"):
        r = client.head(path)
        assert r.status_code == 200 and r.content == b""
        r = client.post(path)
        assert r.status_code == 405 and r.headers["allow"] == "GET, HEAD"
        assert "error" in r.json()
    r = client.delete(f"{URL}/infer", headers=auth())
    assert r.status_code == 405 and r.headers["allow"] == "POST"


# ------------------------------------------------------------ never a 500
BIG = "1" + "0" * 309  # a 310-digit JSON integer: beyond the float range


@pytest.mark.parametrize(
    "text",
    [
        '{"inputs": [{"name": "input", "shape": [1, 3], "datatype": "FP64", '
        f'"data": [1, {BIG}, 2]}}]}}',
        '{"inputs": [{"name": "input", "shape": [1, 3], "datatype": "BYTES", '
        f'"data": [1, {BIG}, 2]}}]}}',
        '{"inputs": [{"name": "x0", "shape": [1], "datatype": "FP64", "data": [1]},'
        f'{{"name": "x1", "shape": [1], "datatype": "FP64", "data": [-{BIG}]}},'
        '{"name": "x2", "shape": [1], "datatype": "FP64", "data": [1]}]}',
        '{"inputs": [{"name": "input", "shape": [1, 3], "datatype": "FP64", '
        f'"data": [1, {"9" * 5000}, 2]}}]}}',  # beyond Python's int-text limit
    ],
)
def test_out_of_range_numbers_are_422(service, text):
    client, served, _ = service
    r = client.post(f"{URL}/infer", content=text, headers=auth())
    assert r.status_code == 422, r.text
    assert "range" in r.json()["error"] or "malformed JSON" in r.json()["error"]
    assert served.predictor.n_answers == 0


def test_the_309_digit_integer_in_a_categorical_model_is_422(tmp_path):
    served = _categorical_served()
    ledger = make_ledger(str(tmp_path / "l.db"), served)
    app = create_app(served, ledger, make_keys())
    text = (
        '{"inputs": [{"name": "input", "shape": [1, 3], "datatype": "BYTES", '
        f'"data": [{"9" * 309}, 2, "Private"]}}]}}'
    )
    with TestClient(app) as client:
        r = client.post(f"{URL}/infer", content=text, headers=auth())
        assert r.status_code == 422 and "range" in r.json()["error"], r.text
    ledger.dispose()


@pytest.mark.parametrize("depth", [40, 100_000])
def test_deep_nesting_is_422(service, depth):
    client, served, _ = service
    data = "[" * depth + "1, 2, 3" + "]" * depth
    text = (
        '{"inputs": [{"name": "input", "shape": [1, 3], "datatype": "FP64", '
        f'"data": {data}}}]}}'
    )
    r = client.post(f"{URL}/infer", content=text, headers=auth())
    assert r.status_code == 422 and "nested" in r.json()["error"], r.text
    assert served.predictor.n_answers == 0


def test_nesting_up_to_the_limit_is_accepted(service):
    client, _, _ = service
    data = "[" * 31 + "1, 2, 3" + "]" * 31
    text = (
        '{"inputs": [{"name": "input", "shape": [1, 3], "datatype": "FP64", '
        f'"data": [{data}]}}]}}'
    )
    r = client.post(f"{URL}/infer", content=text, headers=auth())
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("body", [b"{not json", b'{"inputs": []}', b"x" * 5000])
def test_authentication_comes_before_the_body(service, body):
    client, _, _ = service
    r = client.post(f"{URL}/infer", content=body)
    assert r.status_code == 401 and "API key" in r.json()["error"]
    r = client.post(f"{URL}/infer", content=body, headers=auth("wrong-key"))
    assert r.status_code == 401


def test_the_request_id_hash_is_over_the_decoded_request(service):
    client, served, _ = service
    flat = infer_body([[1, 2, 3], [-1, -2, -3]], "same")
    nested = {
        "id": "same",
        "inputs": [{**flat["inputs"][0], "data": [[1.0, 2, 3], [-1, -2, -3.0]]}],
        "outputs": [{"name": "label"}],
    }
    r1 = client.post(f"{URL}/infer", json=flat, headers=auth())
    r2 = client.post(f"{URL}/infer", json=nested, headers=auth())
    assert r1.status_code == r2.status_code == 200, r2.text
    assert r1.json() == r2.json()
    assert served.predictor.n_answers == 2  # charged once
    other = infer_body([[1, 2, 3], [-1, -2, 4]], "same")
    r3 = client.post(f"{URL}/infer", json=other, headers=auth())
    assert r3.status_code == 409 and served.predictor.n_answers == 2


def test_empty_inputs_agree_with_the_schema(service):
    client, _, _ = service
    doc = client.get("/openapi.json").json()
    assert (
        doc["components"]["schemas"]["InferRequest"]["properties"]["inputs"]["minItems"]
        == 1
    )
    r = client.post(f"{URL}/infer", json={"inputs": []}, headers=auth())
    assert r.status_code == 422


# -------------------------------------------------------------- OpenAPI
def test_openapi_is_honest(service):
    client, _, _ = service
    doc = client.get("/openapi.json").json()
    schemes = doc["components"]["securitySchemes"]
    assert schemes == {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "API key",
            "description": schemes["bearer"]["description"],
        }
    }
    text = json.dumps(doc)
    assert "HTTPValidationError" not in text and '"detail"' not in text
    assert doc["components"]["schemas"]["ErrorBody"]["required"] == ["error"]
    error_ref = {"$ref": "#/components/schemas/ErrorBody"}
    for path in (
        "/v2/models/{name}/infer",
        "/v2/models/{name}/versions/{version}/infer",
    ):
        op = doc["paths"][path]["post"]
        assert op["security"] == [{"bearer": []}]
        assert set(op["responses"]) == {
            "200",
            "401",
            "404",
            "409",
            "413",
            "422",
            "429",
            "503",
        }
        for code in ("401", "404", "409", "413", "422", "429", "503"):
            content = op["responses"][code]["content"]["application/json"]
            assert content["schema"] == error_ref
        assert set(op["responses"]["200"]["content"]) == {
            "application/json",
            "application/octet-stream",
        }
        body = op["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": "#/components/schemas/InferRequest"}
    for path, method in (
        ("/v2", "get"),
        ("/v2/models/{name}", "get"),
        ("/v2/models/{name}/budget", "get"),
    ):
        op = doc["paths"][path][method]
        assert op["security"] == [{"bearer": []}] and "401" in op["responses"]
    assert "security" not in doc["paths"]["/v2/health/live"]["get"]
    # The document's error model is what the server answers.
    r = client.get(URL)
    assert r.status_code == 401 and set(r.json()) == {"error"}
    assert KEY not in text
