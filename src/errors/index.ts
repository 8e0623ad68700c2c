export * from './fw-error.js';
export * from './catalogue.js';
