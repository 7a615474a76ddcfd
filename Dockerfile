FROM python:3.11-slim
WORKDIR /app
ENV PYTHONUNBUFFERED=1 \
    WIZARD_DB=/app/data/wizard.db \
    WIZARD_MODELS_DIR=/app/models \
    WIZARD_STATIC_DIR=/app/static
COPY pyproject.toml README.md ./
COPY wizard ./wizard
COPY static ./static
COPY models ./models
RUN pip install --no-cache-dir . && mkdir -p /app/data
EXPOSE 8000
VOLUME ["/app/data"]
HEALTHCHECK --interval=30s --timeout=3s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"
CMD ["wizard", "serve", "--host", "0.0.0.0"]
