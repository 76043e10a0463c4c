"""The HTTP side shared by every API function: app factory, middleware, error translation."""

from gateway.web.app import create_app, make_lambda_handler

__all__ = ["create_app", "make_lambda_handler"]
