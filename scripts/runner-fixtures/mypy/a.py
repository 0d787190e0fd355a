limit: int = "three"  # fault:A
limit: int = 3  # fixed:A
