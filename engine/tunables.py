"""Overriding a module's named tunables from text, so an A/B match needs no second checkout.

``apply_overrides(namespace, text, what)`` sets upper-case names of ``namespace`` (a
module's ``globals()``) from ``"NAME=VALUE,NAME=VALUE"``: a bool takes 0 or 1, an int or
a float its number, a tuple its numbers separated by ':' (``BISHOP_PAIR=30:50``).
Anything else raises ValueError naming ``what`` and the item, so a misspelt
BASILISK_SEARCH, BASILISK_EVAL or BASILISK_TIME stops the engine at import instead of being ignored.

    apply_overrides(globals(), os.environ.get("BASILISK_SEARCH", ""), "search tunable")
"""


def apply_overrides(namespace, text, what):
    """Set namespace[NAME] for each 'NAME=VALUE' in the comma-separated text."""
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        old = namespace.get(name)
        if not name.isupper() or not isinstance(old, (int, float, tuple)):
            raise ValueError("unknown %s %r" % (what, name))
        namespace[name] = _parse_like(old, value, what, name)


def _parse_like(old, value, what, name):
    """value (text) converted to the type of old; ValueError if it does not fit."""
    try:
        if isinstance(old, bool):
            return bool(int(value))
        if isinstance(old, tuple):
            new = tuple(int(part) for part in value.split(":"))
            if len(new) != len(old):
                raise ValueError("needs %d values separated by ':'" % len(old))
            return new
        return type(old)(value)
    except ValueError as error:
        raise ValueError("bad value %r for %s %s: %s" % (value, what, name, error)) from None
