import type { Engine } from '../engine.js';
import { invalid } from '../errors.js';
import type { UnaryHandler } from '../grpc-service.js';

export function operatorServiceHandlers(engine: Engine): Record<string, UnaryHandler> {
  return {
    AddSearchAttributes: (req) => {
      engine.registry.add(req.namespace || 'default', req.searchAttributes ?? {});
      return {};
    },
    RemoveSearchAttributes: (req) => {
      engine.registry.remove(req.namespace || 'default', req.searchAttributes ?? []);
      return {};
    },
    ListSearchAttributes: (req) => {
      const { custom, system } = engine.registry.list(req.namespace || 'default');
      return { customAttributes: custom, systemAttributes: system, storageSchema: {} };
    },
    DeleteNamespace: () => {
      throw invalid('devserver namespaces cannot be deleted');
    },
  };
}
