__all__ = ["run"]
