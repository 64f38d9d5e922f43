def main():
    return "shop"
