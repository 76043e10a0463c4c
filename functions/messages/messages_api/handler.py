"""Lambda entry point of the messages function."""

from gateway.web import create_app, make_lambda_handler
from messages_api.media_routes import router as media_router
from messages_api.routes import router
from messages_api.send_routes import router as send_router

app = create_app(router, send_router, media_router)
handler = make_lambda_handler(app)
