"""Lambda entry point of the devices function."""

from devices_api.routes import router
from gateway.web import create_app, make_lambda_handler

app = create_app(router)
handler = make_lambda_handler(app)
