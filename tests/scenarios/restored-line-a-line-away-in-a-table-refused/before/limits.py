LIMITS = {
    "upload": {
        "burst": 10,
        "rate": 5,
        "window": 60,
    },
    "download": {
        "burst": 10,
        "rate": 5,
        "window": 60,
    },
    "search": {
        "burst": 20,
        "queries": 8,
        "cache_ttl": 30,
        "max_terms": 12,
        "timeout": 4,
    },
}
