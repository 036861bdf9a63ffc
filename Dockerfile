# Production image of every lmstream service (the command picks one: --service ...).
FROM node:24-slim
WORKDIR /app
# sqlite3 builds from source when its prebuilt binary cannot be fetched; Tesseract's
# language data serves the OCR of extraction images (tesseract.js, docs/extract.md)
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
      tesseract-ocr-eng tesseract-ocr-swa tesseract-ocr-yor tesseract-ocr-amh \
    && rm -rf /var/lib/apt/lists/*
ENV ONNXRUNTIME_NODE_INSTALL=skip NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY services ./services
COPY schemas ./schemas
COPY connectors ./connectors
COPY models ./models
EXPOSE 8080 8081
# V8 flags: services/node-flags.ts
ENTRYPOINT ["node", "--max-semi-space-size=32", "--min-semi-space-size=32", "--import", "tsx", "services/main.ts"]
CMD ["--service", "all"]
