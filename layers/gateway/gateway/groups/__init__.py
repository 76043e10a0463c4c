"""Groups and communities: the rules the API and the session host share, and the API side."""
