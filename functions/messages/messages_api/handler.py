"""Lambda entry point of the messages function."""

from gateway.web import create_app, make_lambda_handler
from messages_api.routes import router

app = create_app(router)
handler = make_lambda_handler(app)
