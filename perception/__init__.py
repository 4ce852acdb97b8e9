"""perception package."""
