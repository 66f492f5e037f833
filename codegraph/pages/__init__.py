"""One Streamlit page per job; each file is run as a script by ``st.navigation``.

Being a package keeps the page files inside a non-editable install.
"""
