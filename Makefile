# The two commands of the README, and one setup target per optional part. Each sets up .venv first
# (idempotent): `make plan` installs only what the main job needs; `make test` every extra the tests use.
# Reference data: $COAT_DATA_DIR if set, else ../shared beside the checkout (else the user cache that
# `coat data download` fills).
export COAT_DATA_DIR ?= $(abspath $(CURDIR)/../shared)

.PHONY: setup setup-main setup-llm setup-sciworld setup-thor setup-ray plan test

setup:
	bash scripts/setup.sh all

setup-main:
	bash scripts/setup.sh main

# the embedded language models (llama.cpp builds for a few minutes) and the MiniLM encoder
setup-llm:
	bash scripts/setup.sh local-llm gemma

# ScienceWorld (needs Java 8+ on PATH)
setup-sciworld:
	bash scripts/setup.sh sciworld

# the real AI2-THOR controller (its Unity build downloads on first use)
setup-thor:
	bash scripts/setup.sh thor

# Ray with its client, for --ray of coat eval / ablate / bench / sciworld
setup-ray:
	bash scripts/setup.sh ray

plan: setup-main
	.venv/bin/coat plan "cut cake" --execute

test: setup
	. .venv/bin/activate && bash scripts/test.sh
