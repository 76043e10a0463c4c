"""Lambda entry point of the groups function."""

from gateway.web import create_app, make_lambda_handler
from groups_api.routes import router

app = create_app(router)
handler = make_lambda_handler(app)
