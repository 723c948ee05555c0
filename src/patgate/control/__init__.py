"""The control surface, declared once: every operation (``operations``) and the generator of
the control API's document and the Python faces drawn from it (``document``)."""
