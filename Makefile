# The two commands of the README. Both set up .venv first (idempotent).
.PHONY: setup plan test

setup:
	bash scripts/setup.sh

plan: setup
	.venv/bin/coat plan "cut cake"

test: setup
	. .venv/bin/activate && bash scripts/test.sh
