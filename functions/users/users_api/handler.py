"""Lambda entry point of the users function."""

from gateway.gc_pause import cyclic_gc_paused

with cyclic_gc_paused():  # the imports of a cold start: gateway/gc_pause.py
    from gateway.web import create_app, make_lambda_handler
    from users_api.routes import router

    app = create_app(router)

handler = make_lambda_handler(app)
