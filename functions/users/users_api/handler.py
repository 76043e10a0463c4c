"""Lambda entry point of the users function."""

from gateway.web import create_app, make_lambda_handler
from users_api.routes import router

app = create_app(router)
handler = make_lambda_handler(app)
