"""How a failure is named and answered: the error kinds of a command's reply
(:mod:`.kinds`), the API's standard error codes (:mod:`.codes`) and the one table from a
command family and an error kind to the HTTP answer, with the functions that answer from it
(:mod:`.table`)."""
