// Renders the service's OpenAPI document with Swagger UI (loaded from this origin by /api/v1/docs).
window.addEventListener('DOMContentLoaded', function () {
  window.ui = window.SwaggerUIBundle({
    url: '/api/v1/openapi',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The online validator badge would send the document to another site.
    validatorUrl: null,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
