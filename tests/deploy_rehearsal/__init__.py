"""The deploy rehearsal: every AWS call of the end-to-end run, checked against the template.

What the first ``sam deploy`` would show in front of a user, found on this machine: a call the
caller's role does not allow, a grant no call uses, an environment variable the code reads and
the template does not set (or the reverse). :mod:`deploy_rehearsal.recording` records each call
with the principal whose code made it; :mod:`deploy_rehearsal.check` evaluates them at the end
of the run (:mod:`deploy_rehearsal.plugin`); docs/testing.md, "Deploy rehearsal", explains it.
"""
