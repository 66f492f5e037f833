"""The Streamlit dashboard: entry point (``app.py``) and the pieces pages share.

Pages live in ``codegraph/pages``; ``app.py`` lists them in one place.
"""
