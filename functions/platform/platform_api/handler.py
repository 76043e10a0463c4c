"""Lambda entry point of the platform function."""

from gateway.web import create_app, make_lambda_handler
from platform_api.routes import fallback_router, router

app = create_app(router, fallback_router)
handler = make_lambda_handler(app)
