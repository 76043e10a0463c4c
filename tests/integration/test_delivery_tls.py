"""Delivery to an HTTPS receiver: the certificate and the name are verified, the connection kept."""

from __future__ import annotations

import datetime
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from gateway.webhooks.delivery.transport import Transport

BODY = b'{"id":"e1"}'


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for the name ``localhost`` only, and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_file, key_file


@pytest.fixture
def tls_receiver(tmp_path: Path) -> Iterator[tuple[int, Path, list[tuple[str, int]]]]:
    """A receiver answering 204 over TLS on 127.0.0.1; yields its port, its certificate and the
    client address of each request."""
    cert_file, key_file = self_signed(tmp_path)
    clients: list[tuple[str, int]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            clients.append(self.client_address[:2])
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], cert_file, clients
    finally:
        server.shutdown()
        server.server_close()


def test_an_untrusted_certificate_is_a_failure(tls_receiver: tuple[int, Path, list[tuple[str, int]]]) -> None:
    port, _, clients = tls_receiver
    result = Transport(None).post(f"https://localhost:{port}/in", BODY, {}, timeout=5).result()
    assert result.status_code is None
    assert result.error is not None
    assert result.error.startswith("connection failed:")
    assert "certificate verify failed" in result.error
    assert clients == []


def test_a_trusted_receiver_gets_the_events_on_one_connection_and_a_wrong_name_fails(
    tls_receiver: tuple[int, Path, list[tuple[str, int]]],
) -> None:
    # Given a receiver whose certificate is trusted (for the name localhost)
    port, cert_file, clients = tls_receiver
    sender = Transport(None, ssl_context=ssl.create_default_context(cafile=str(cert_file)))

    # When two events are posted to it, they arrive, over one kept connection
    assert sender.post(f"https://localhost:{port}/in", BODY, {}, timeout=5).result().ok
    assert sender.post(f"https://localhost:{port}/in", BODY, {}, timeout=5).result().ok
    assert len(clients) == 2
    assert clients[0] == clients[1]

    # And by an address the certificate does not name, the attempt fails before sending
    result = sender.post(f"https://127.0.0.1:{port}/in", BODY, {}, timeout=5).result()
    assert result.error is not None
    assert "certificate verify failed" in result.error
    assert len(clients) == 2
