"""Lambda entry point of the webhooks function."""

from gateway.web import create_app, make_lambda_handler
from webhooks_api.routes import router

app = create_app(router)
handler = make_lambda_handler(app)
