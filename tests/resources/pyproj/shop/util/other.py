def normalize(value):
    return value
