"""The linked account itself, through the request's device: its presence (PUT /presence),
following other people's (POST /contacts/{jid}/presence/subscribe), and its profile (GET and
PATCH /profile, PUT /profile/picture). See docs/profile.md."""
