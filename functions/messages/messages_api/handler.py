"""Lambda entry point of the messages function."""

from gateway.gc_pause import cyclic_gc_paused

with cyclic_gc_paused():  # the imports of a cold start: gateway/gc_pause.py
    from gateway.web import create_app, make_lambda_handler
    from messages_api.call_routes import router as call_router
    from messages_api.contact_routes import router as contact_router
    from messages_api.media_routes import router as media_router
    from messages_api.outbox_routes import router as outbox_router
    from messages_api.poll_routes import router as poll_router
    from messages_api.presence_routes import router as presence_router
    from messages_api.profile_routes import router as profile_router
    from messages_api.reaction_routes import router as reaction_router
    from messages_api.routes import router
    from messages_api.send_media_routes import router as send_media_router
    from messages_api.send_routes import router as send_router
    from messages_api.status_routes import router as status_router

    app = create_app(
        router,
        send_router,
        send_media_router,
        media_router,
        status_router,
        presence_router,
        profile_router,
        contact_router,
        poll_router,
        call_router,
        reaction_router,
        outbox_router,
    )

handler = make_lambda_handler(app)
