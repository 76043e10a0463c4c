"""Routes of the messages area. They arrive with the messages capability; the router exists so the
function, its deployment and the local app are wired from the start."""

from fastapi import APIRouter

router = APIRouter(tags=["messages"])
