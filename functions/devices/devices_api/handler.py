"""Lambda entry point of the devices function."""

from gateway.gc_pause import cyclic_gc_paused

with cyclic_gc_paused():  # the imports of a cold start: gateway/gc_pause.py
    from devices_api.routes import router
    from gateway.web import create_app, make_lambda_handler

    app = create_app(router)

handler = make_lambda_handler(app)
