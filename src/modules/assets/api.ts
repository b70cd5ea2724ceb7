import type { AppContext } from '../../platform/http/context';
import { recordApi } from '../../platform/records/record-api';
import { AssetCreate, AssetListQuery, AssetUpdate, AssetView } from './schema';
import { assetKind } from './service';

export const assetsApi = (ctx: AppContext) =>
  recordApi(ctx, assetKind, { path: '/assets', tag: 'Assets', plural: 'assets', Create: AssetCreate, Update: AssetUpdate, View: AssetView, ListQuery: AssetListQuery });
