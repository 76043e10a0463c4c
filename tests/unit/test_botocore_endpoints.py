"""botocore's endpoint data cut down to the gateway's services: current, resolving the same
endpoints as botocore's own file, and read in its place only when it may be."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import botocore
import botocore.session
import pytest
from botocore.exceptions import BotoCoreError
from botocore.regions import EndpointResolver

from gateway import aws, botocore_endpoints


def test_the_trimmed_endpoints_are_written_for_the_installed_botocore() -> None:
    # Given the file in the repository and botocore's own data as installed
    written = json.loads(botocore_endpoints.TRIMMED_FILE.read_bytes())

    # Then the file is exactly what trimming the installed botocore's data gives
    assert written == botocore_endpoints.generate(aws.SERVICES), "botocore changed: run `make endpoints`"


def _questions(full: dict[str, Any]) -> Iterator[tuple[str, str, bool, bool]]:
    """Every service of the gateway in every region of every partition, with every variant."""
    for partition in full["partitions"]:
        for region in partition["regions"]:
            for service in aws.SERVICES:
                for dualstack in (False, True):
                    for fips in (False, True):
                        yield service, region, dualstack, fips


def _answer(resolver: EndpointResolver, service: str, region: str, asked: dict[str, bool]) -> Any:
    """The endpoint a resolver constructs, or the error it raises (a variant a region lacks)."""
    try:
        return resolver.construct_endpoint(service, region, **asked)
    except BotoCoreError as error:
        return repr(error)


def test_the_gateways_services_resolve_as_with_botocores_own_data() -> None:
    # Given a resolver of botocore's whole data and one of the trimmed data
    full = json.loads(botocore_endpoints.BOTOCORE_FILE.read_bytes())
    trimmed = botocore_endpoints.trimmed()
    assert trimmed is not None
    theirs, ours = (
        EndpointResolver(full, uses_builtin_data=True),
        EndpointResolver(trimmed, uses_builtin_data=True),
    )

    # When each resolves every service of the gateway in every region, plain, FIPS and dual-stack
    questions = list(_questions(full))
    assert len(questions) > 400

    # Then both answer the same, and place every region in the same partition
    for service, region, dualstack, fips in questions:
        asked = {"use_dualstack_endpoint": dualstack, "use_fips_endpoint": fips}
        assert _answer(ours, service, region, asked) == _answer(theirs, service, region, asked)
        assert ours.get_partition_for_region(region) == theirs.get_partition_for_region(region)
    for partition in theirs.get_available_partitions():
        for service in aws.SERVICES:
            assert ours.get_available_endpoints(service, partition) == theirs.get_available_endpoints(
                service, partition
            )


@pytest.fixture
def parsed_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the gateway's data loader parses from now on."""
    parsed: list[str] = []
    load_file = aws._DictJSONFileLoader._load_file

    def noting(self: Any, full_path: str, open_method: Any) -> Any:
        data = load_file(self, full_path, open_method)
        if data is not None:
            parsed.append(os.path.basename(full_path))
        return data

    monkeypatch.setattr(aws._DictJSONFileLoader, "_load_file", noting)
    return parsed


def _dynamodb_client_of_a_new_session() -> Any:
    session = botocore.session.get_session()
    session.register_component("data_loader", aws._GatewayLoader())
    return session.create_client("dynamodb", region_name="eu-west-1")


def test_a_session_reads_the_trimmed_endpoints_instead_of_botocores(parsed_files: list[str]) -> None:
    # When a session with the gateway's loader makes its first client
    client = _dynamodb_client_of_a_new_session()

    # Then botocore's endpoints.json was never parsed, and the client is made as usual
    assert "endpoints.json" not in parsed_files
    assert "service-2.json.gz" in parsed_files
    assert client.meta.region_name == "eu-west-1"


def test_with_another_botocore_version_botocore_reads_its_own(
    parsed_files: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a botocore other than the one the trimmed file was written for
    monkeypatch.setattr(botocore, "__version__", "0.0.1")

    # When a session with the gateway's loader makes its first client
    _dynamodb_client_of_a_new_session()

    # Then it read botocore's own endpoints
    assert botocore_endpoints.trimmed() is None
    assert "endpoints.json" in parsed_files


def test_a_customer_endpoints_file_still_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given an endpoints.json in the customer data path (~/.aws/models), as botocore allows
    customer = json.loads(botocore_endpoints.BOTOCORE_FILE.read_bytes()) | {"customer": True}
    (tmp_path / "endpoints.json").write_text(json.dumps(customer))
    monkeypatch.setattr(aws._GatewayLoader, "CUSTOMER_DATA_PATH", str(tmp_path))

    # When the gateway's loader is asked for the endpoints
    data, path = aws._GatewayLoader().load_data_with_path("endpoints")

    # Then it answers the customer's file, as botocore's loader would
    assert data.get("customer") is True
    assert path == str(tmp_path / "endpoints")
