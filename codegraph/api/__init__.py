"""Faces other than the CLI table view share these answers (docs/DESIGN.md#faces).

``answers``: one definition of each JSON answer (the CLI's ``--json`` and the REST API
return the same dicts); ``rest``: the FastAPI app behind ``codegraph serve``.
"""
