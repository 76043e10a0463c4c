"""The SAM template: lint, the offline transform, and the functions it deploys (layer,
runtime, handlers, the platform function's secret).

Nothing here calls AWS: cfn-lint and the SAM translator run in-process, and the managed
policy lookup of the translator is answered by a stub (:mod:`template_steps`). The routes,
the tables and queues, and the media bucket have modules of their own
(``test_template_api.py``, ``test_template_queues_tables.py``, ``test_template_media.py``).
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

from cfnlint.api import lint_file
from template_steps import (
    API_FUNCTIONS,
    REPO_ROOT,
    TEMPLATE_PATH,
    StubManagedPolicyLoader,
    resources_of_type,
)


def test_cfn_lint_reports_no_errors() -> None:
    # Given the template on disk
    # When cfn-lint checks it with its default rules
    matches = lint_file(TEMPLATE_PATH)

    # Then nothing is an error (warnings are tolerated but shown on failure)
    errors = [match for match in matches if match.rule.severity == "error"]
    report = "\n".join(repr(match) for match in matches)
    assert not errors, f"cfn-lint errors:\n{report}"


def test_transform_makes_no_aws_managed_policy_lookup_fail(
    transformed: dict[str, Any], managed_policy_loader: StubManagedPolicyLoader
) -> None:
    # Given the transformed template (built with a stub managed-policy loader)
    # When the session host's execution role is inspected
    role = transformed["Resources"]["SessionHostExecutionRole"]["Properties"]

    # Then it carries the ECS task execution managed policy, and the transform succeeded
    # without reaching IAM (the loader, if consulted at all, was the stub)
    assert any("AmazonECSTaskExecutionRolePolicy" in json.dumps(arn) for arn in role["ManagedPolicyArns"])
    assert managed_policy_loader.calls <= 1


def test_shared_layer_is_attached_to_every_function(transformed: dict[str, Any]) -> None:
    # Given the single layer version built from layers/gateway
    layers = resources_of_type(transformed, "AWS::Lambda::LayerVersion")
    assert len(layers) == 1
    (layer_id,) = layers

    # When every Lambda function is inspected
    functions = resources_of_type(transformed, "AWS::Lambda::Function")

    # Then each one uses that layer and the shared runtime settings
    assert set(functions) == {*API_FUNCTIONS, "WebhookDeliveryFunction", "SlowWebhookDeliveryFunction"}
    for name, function in functions.items():
        properties = function["Properties"]
        assert properties["Layers"] == [{"Ref": layer_id}], name
        assert properties["Runtime"] == "python3.11", name
        assert properties["TracingConfig"] == {"Mode": "Active"}, name


def test_each_function_is_built_from_its_own_folder_holding_its_handler(template: dict[str, Any]) -> None:
    # Given every function and the layer, with the local paths `sam build` builds from
    functions = resources_of_type(template, "AWS::Serverless::Function")
    layer = template["Resources"]["SharedLayer"]
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    package_dirs = pyproject["tool"]["setuptools"]["package-dir"]

    # When each Handler is looked up under its function's CodeUri
    # Then each function is built by functions/Makefile (its ContextPath), and its handler is one
    # hop away: `<package>.handler.handler` is <CodeUri>/<package>/handler.py
    for name, function in functions.items():
        assert function["Metadata"] == {"BuildMethod": "makefile", "ContextPath": "functions"}, name
        code = REPO_ROOT / function["Properties"]["CodeUri"]
        module, _, _attribute = function["Properties"]["Handler"].rpartition(".")
        package = module.partition(".")[0]
        assert code.parent == REPO_ROOT / "functions", name
        assert (code / (module.replace(".", "/") + ".py")).is_file(), f"{name}: no {module} in {code}"
        # And the folder holds that package alone: the build ships the folder as it is
        assert {entry.name for entry in code.iterdir()} == {package}, name
        # And `pip install .` takes the package from the same place
        assert REPO_ROOT / package_dirs[package] == code / package, name
    assert (REPO_ROOT / "functions" / "Makefile").is_file()
    # And the layer directory has the Makefile, the lock and the gateway package its build uses
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    layer_dir = REPO_ROOT / layer["Properties"]["ContentUri"]
    assert (layer_dir / "Makefile").is_file()
    assert (layer_dir / "requirements.txt").is_file()
    assert (layer_dir / "gateway" / "__init__.py").is_file()


def test_platform_function_gets_the_master_token_secret(template: dict[str, Any]) -> None:
    # Given the platform function
    properties = template["Resources"]["PlatformFunction"]["Properties"]

    # When its own environment is read
    variables = properties["Environment"]["Variables"]

    # Then it names the generated secret, which is the only one it may read
    assert variables["MASTER_TOKEN_SECRET_ARN"] == {"Ref": "MasterTokenSecret"}
    secret_policies = [p for p in properties["Policies"] if "AWSSecretsManagerGetSecretValuePolicy" in p]
    assert secret_policies == [
        {"AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": {"Ref": "MasterTokenSecret"}}}
    ]
