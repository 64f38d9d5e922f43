"""A tiny web app's routes, for the tests of recorded coverage and of
`cartog-ci test` (tests/report/test_coverage.py, tests/commands/test_shadow.py)."""

# The routes are reached through a registry: no static graph sees a test
# call `hello` (framework dispatch, issue 30); the recorded run does.
ROUTES = '''ROUTES = {}


def route(name):
    def register(fn):
        ROUTES[name] = fn
        return fn

    return register


@route("hello")
def hello(who):
    return "hello " + who


@route("bye")
def bye(who):
    return "bye " + who


def shout(text):
    return text.upper()
'''
