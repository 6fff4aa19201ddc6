/**
 * @file Entry of models.html, the embedding-model diagnostics page (docs/models.md).
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ModelCheck } from './ModelCheck';
import './models.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ModelCheck />
  </StrictMode>,
);
