"""Devices: records, who may see and manage them, and the commands that drive their sessions.

``store`` reads and writes device records, ``access`` holds the visibility rules and the
FastAPI dependencies that pick a request's device, ``views`` the public JSON shapes,
``commands`` the device commands sent over the bus with their errors, and ``service`` the
operations the device routes call.
"""
