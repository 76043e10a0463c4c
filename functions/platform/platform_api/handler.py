"""Lambda entry point of the platform function."""

from gateway.gc_pause import cyclic_gc_paused

with cyclic_gc_paused():  # the imports of a cold start: gateway/gc_pause.py
    from gateway.web import create_app, make_lambda_handler
    from platform_api.console import router as console_router
    from platform_api.routes import fallback_router, router

    app = create_app(router, console_router, fallback_router)

handler = make_lambda_handler(app)
