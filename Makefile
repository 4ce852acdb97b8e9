# The two commands of the README. Both set up .venv first (idempotent).
# Reference data: $COAT_DATA_DIR if set, else ../shared beside the checkout (else the user cache that
# `coat data download` fills).
export COAT_DATA_DIR ?= $(abspath $(CURDIR)/../shared)

.PHONY: setup plan test

setup:
	bash scripts/setup.sh

plan: setup
	.venv/bin/coat plan "cut cake" --execute

test: setup
	. .venv/bin/activate && bash scripts/test.sh
