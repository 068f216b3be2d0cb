"""
report.py - build and print weekly reports
"""

import re
import sys


def main():
    return 0
