"""The local stack: the whole gateway on one machine, without AWS or Docker.

Not deployed: SAM builds only ``layers/gateway``. ``make run`` runs ``python -m local_stack``.
"""
