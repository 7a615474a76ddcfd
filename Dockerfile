# syntax=docker/dockerfile:1
# The same steps as tests/test_packaging.py: build the wheel, install it into a fresh venv,
# run `wizard serve` from a directory without the checkout (static files and models come
# from the installed package).

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY wizard ./wizard
COPY static ./static
COPY models ./models
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /dist .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    WIZARD_DB=/app/data/wizard.db
COPY --from=build /dist /dist
# runtime dependencies only: no dev or train extra
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir /dist/*.whl \
    && rm -rf /dist \
    && groupadd --system --gid 10001 wizard \
    && useradd --system --uid 10001 --gid 10001 --home-dir /app --shell /usr/sbin/nologin wizard \
    && mkdir -p /app/data \
    && chown -R wizard:wizard /app
WORKDIR /app
USER 10001:10001
EXPOSE 8000
VOLUME ["/app/data"]
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
# exec form: the server is PID 1 and gets SIGTERM itself (it tells clients, flushes the
# store and exits within WIZARD_SHUTDOWN_SECONDS, 5 s, inside docker stop's 10 s)
STOPSIGNAL SIGTERM
CMD ["wizard", "serve", "--host", "0.0.0.0"]
