print("oprun-bench: nothing yet")
