"""Calls the device's account is offered: rejecting one (``docs/devices.md``, "Calls")."""
