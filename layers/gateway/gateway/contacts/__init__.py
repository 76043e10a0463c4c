"""Other accounts, through the request's device: number checks (POST /contacts/check), one
contact's profile with its phone JID and LID (GET /contacts/{jid}), blocking and the
blocklist. See docs/contacts.md."""
