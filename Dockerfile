# Stub until the server issue lands: builds the package and prints the CLI help.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY wizard ./wizard
COPY static ./static
COPY models ./models
RUN pip install --no-cache-dir .
CMD ["wizard", "--help"]
