#!/bin/sh
echo uno
echo two
