"""Stories (status) of the request's device: who sees them (GET/PUT /status/privacy) and
publishing one (POST /status/text, /status/image, /status/video). See docs/status.md."""
