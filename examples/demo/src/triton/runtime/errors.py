"""Exception types of triton.runtime.errors that callers catch."""


class OutOfResources(Exception):
    def __init__(self, required, limit, name):
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__(f"out of resource: {name}, Required: {required}, Hardware limit: {limit}")


class PTXASError(Exception):
    pass


class AutotunerError(Exception):
    pass
