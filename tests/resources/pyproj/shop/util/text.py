import re as regex


def slugify(value: str) -> str:
    return regex.sub(r"\W+", "-", normalize(value))


def normalize(value):
    return value.strip().lower()
