import { createRouter, createWebHistory, type RouteRecordRaw } from 'vue-router';

const routes: RouteRecordRaw[] = [
  { path: '/login', name: 'login', component: () => import('./views/LoginView.vue'), meta: { guest: true } },
  { path: '/update-password', name: 'update-password', component: () => import('./views/UpdatePasswordView.vue'), meta: { guest: true } },
  { path: '/qrcode', name: 'qrcode', component: () => import('./views/QrCodeView.vue'), meta: { guest: true } },
  { path: '/app/two-factor', name: 'two-factor', component: () => import('./views/TwoFactorView.vue') },
  { path: '/app', name: 'home', component: () => import('./views/HomeView.vue') },
  { path: '/app/role-permission-manager', name: 'role-permissions', component: () => import('./views/RolePermissionsView.vue') },
  { path: '/app/data-import-tool', name: 'data-import', component: () => import('./views/DataImportView.vue') },
  { path: '/app/query-report/:name(.*)', name: 'query-report', component: () => import('./views/QueryReportView.vue'), props: true },
  { path: '/app/operations', name: 'operations', component: () => import('./views/OperationsView.vue') },
  // Files are made by uploading: the Files screen, never a form without an upload control.
  { path: '/app/file', name: 'files', component: () => import('./views/FilesView.vue') },
  { path: '/app/file/new', redirect: '/app/file' },
  { path: '/app/doctype/new', name: 'doctype-new', component: () => import('./views/DocTypeBuilder.vue') },
  { path: '/app/doctype/:name(.*)', name: 'doctype-edit', component: () => import('./views/DocTypeBuilder.vue'), props: true },
  { path: '/app/oauth/authorize', name: 'oauth-consent', component: () => import('./views/OAuthConsentView.vue') },
  { path: '/app/oauth/authorized-apps', name: 'oauth-apps', component: () => import('./views/OAuthAppsView.vue') },
  { path: '/app/:doctype', name: 'list', component: () => import('./views/ListView.vue'), props: true },
  { path: '/app/:doctype/new', name: 'new', component: () => import('./views/FormView.vue'), props: (r) => ({ doctype: r.params.doctype, name: undefined }) },
  { path: '/app/:doctype/:name(.*)', name: 'form', component: () => import('./views/FormView.vue'), props: true },
  { path: '/:rest(.*)', redirect: '/app' },
];

export const router = createRouter({ history: createWebHistory('/'), routes });
