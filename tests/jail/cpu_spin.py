# A busy loop ends at the wall-clock timeout.
while True:
    pass
