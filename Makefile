# Fresh machine: `make serve` starts the companion, `make test` runs lint + the whole suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test lint venv clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

serve: $(STAMP)
	$(BIN)/boardcam serve

lint: $(STAMP)
	$(BIN)/ruff check engines vision calibration companion_web tests benchmarks

test: $(STAMP) lint
	$(BIN)/python -m pytest -n auto

clean:
	rm -rf $(VENV) build *.egg-info

# Re-render the committed sample photos and their truth (simulator, deterministic).
.PHONY: samples
samples: $(STAMP)
	$(BIN)/boardcam dataset --preset samples --quiet sample_images
