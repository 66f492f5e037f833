"""The order service."""
